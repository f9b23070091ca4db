// Replay viewer: draws the scene of a murcosim run (see scene.py) and plays it back.
// Lengths in m. The world group holds NED coordinates (x north, y east, z down); its matrix
// turns them into three.js view coordinates (X east, Y up, Z south).
import * as THREE from 'three';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';

const NED_TO_VIEW = new THREE.Matrix4().set(0, 1, 0, 0, 0, 0, -1, 0, -1, 0, 0, 0, 0, 0, 0, 1);
const FIELD_OF_VIEW = 45; // deg, vertical
const PORT_FREE = 0xff9f1c;
const PORT_DOCKED = 0x06d6a0;
const SCALE_WIDTH = 160; // px, longest scale bar
const SURFACE_SEGMENTS = 128; // per side of the surface's grid of vertices
const CHI_SAMPLES = 2048; // elevations computed per frame along the wave's direction
const TETHER = 0xffd23f;
const VIEW = 0xf4a261;
const BEAM_VALID = 0x5ce1e6;
const BEAM_LOST = 0xff5c5c;
const MARKER_SEEN = 0x06d6a0;
const MARKER_UNSEEN = 0x8a99a8;
const LAYERS = {
  surface: 'sea surface',
  seabed: 'seabed',
  tethers: 'tethers',
  views: 'camera views',
  beams: 'DVL beams',
  markers: 'markers and detections',
};

const toQuaternion = (q) => new THREE.Quaternion(q[1], q[2], q[3], q[0]);

// Index k and weight w with t between time[k] and time[k + 1].
function locate(time, t) {
  let lo = 0;
  let hi = time.length - 1;
  if (t <= time[0] || hi === 0) return [0, 0];
  if (t >= time[hi]) return [hi, 0];
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (time[mid] <= t) lo = mid; else hi = mid;
  }
  return [lo, (t - time[lo]) / (time[lo + 1] - time[lo])];
}

const lerp = (a, b, w) => a + (b - a) * w;
const sample = (series, k, w) => (w > 0 ? lerp(series[k], series[k + 1], w) : series[k]);

function bodyMesh(body) {
  const shape = body.shape;
  const material = new THREE.MeshStandardMaterial({ color: body.colour, roughness: 0.6, metalness: 0.1 });
  let geometry;
  if (shape.kind === 'cylinder') {
    geometry = new THREE.CylinderGeometry(shape.radius, shape.radius, shape.length, 40);
    geometry.rotateX(Math.PI / 2); // three's cylinder axis is y; the body's is z
  } else {
    geometry = new THREE.BoxGeometry(...shape.size);
  }
  geometry.translate(...shape.centre);
  const mesh = new THREE.Mesh(geometry, material);
  const edges = new THREE.LineSegments(
    new THREE.EdgesGeometry(geometry, 30),
    new THREE.LineBasicMaterial({ color: 0x0b2238, transparent: true, opacity: 0.6 }),
  );
  const group = new THREE.Group();
  group.add(mesh, edges);
  return group;
}

function label(text, colour, height) {
  const canvas = document.createElement('canvas');
  const context = canvas.getContext('2d');
  context.font = 'bold 44px system-ui, sans-serif';
  canvas.width = Math.ceil(context.measureText(text).width) + 16;
  canvas.height = 60;
  context.font = 'bold 44px system-ui, sans-serif';
  context.fillStyle = colour;
  context.fillText(text, 8, 46);
  const sprite = new THREE.Sprite(new THREE.SpriteMaterial({ map: new THREE.CanvasTexture(canvas), depthTest: false }));
  sprite.scale.set((height * canvas.width) / canvas.height, height, 1);
  return sprite;
}

function unitRotation(from, to) {
  return new THREE.Quaternion().setFromUnitVectors(from, new THREE.Vector3(...to).normalize());
}

export function start(scene) {
  const time = scene.time;
  const t0 = time[0];
  const t1 = time[time.length - 1];
  const params = new URLSearchParams(window.location.hash.slice(1));
  const showUi = params.get('ui') !== '0';
  if (!showUi) document.body.classList.add('bare');
  const view = document.getElementById('view');
  const renderer = new THREE.WebGLRenderer({ antialias: true, preserveDrawingBuffer: true });
  renderer.setPixelRatio(window.devicePixelRatio);
  view.appendChild(renderer.domElement);
  const world3 = new THREE.Scene();
  world3.background = new THREE.Color(0x0b2238);
  world3.add(new THREE.HemisphereLight(0xdfefff, 0x203040, 1.6));
  const sun = new THREE.DirectionalLight(0xffffff, 1.6);
  sun.position.set(3, 10, 4);
  world3.add(sun);
  const world = new THREE.Group();
  world.matrixAutoUpdate = false;
  world.matrix.copy(NED_TO_VIEW);
  world3.add(world);

  // Extent of the run, NED (scene.py's frame)
  const radius = scene.frame.radius;
  const centre = new THREE.Vector3(...scene.frame.centre);

  // Bodies, trails of the principal ones, thrusters, joints and ports (all in body frames)
  const groups = {};
  for (const body of scene.bodies) {
    const group = new THREE.Group();
    group.add(bodyMesh(body));
    const size = body.size;
    group.add(new THREE.AxesHelper(0.6 * size));
    if (body.principal && showUi) {
      const name = label(body.name, body.colour, Math.max(0.06, radius / 25));
      name.position.set(0, 0, -0.8 * size);
      group.add(name);
    }
    groups[body.name] = group;
    world.add(group);
    if (!body.principal) continue;
    const trail = new THREE.BufferGeometry().setFromPoints(body.p.map((p) => new THREE.Vector3(...p)));
    world.add(new THREE.Line(trail, new THREE.LineBasicMaterial({ color: body.colour, transparent: true, opacity: 0.45 })));
  }
  const yAxis = new THREE.Vector3(0, 1, 0);
  const thrusters = scene.thrusters.map((thruster) => {
    const housing = new THREE.Mesh(
      new THREE.CylinderGeometry(0.02, 0.02, 0.04, 16),
      new THREE.MeshStandardMaterial({ color: 0x333c48 }),
    );
    housing.position.set(...thruster.position);
    housing.quaternion.copy(unitRotation(yAxis, thruster.direction));
    const direction = new THREE.Vector3(...thruster.direction).normalize();
    const arrow = new THREE.ArrowHelper(direction, new THREE.Vector3(...thruster.position), 0.1, 0xffd166, 0.03, 0.02);
    groups[thruster.body].add(housing, arrow);
    return { thruster, arrow, direction };
  });
  for (const joint of scene.joints) {
    const marker = new THREE.Mesh(new THREE.SphereGeometry(0.012, 16, 12), new THREE.MeshStandardMaterial({ color: 0xf4f4f4 }));
    marker.position.set(...joint.at);
    groups[joint.a].add(marker);
    if (joint.axis) {
      const axis = new THREE.Mesh(new THREE.CylinderGeometry(0.004, 0.004, 0.06, 8), new THREE.MeshStandardMaterial({ color: 0xf4f4f4 }));
      axis.position.set(...joint.at);
      axis.quaternion.copy(unitRotation(yAxis, joint.axis));
      groups[joint.a].add(axis);
    }
  }
  const ports = scene.ports.map((port) => {
    const material = new THREE.MeshStandardMaterial({ color: PORT_FREE });
    const cone = new THREE.Mesh(new THREE.ConeGeometry(0.03, 0.05, 20), material);
    cone.quaternion.copy(unitRotation(yAxis, port.normal));
    cone.position.set(...port.position).addScaledVector(new THREE.Vector3(...port.normal), 0.025);
    groups[port.body].add(cone);
    return { port, material };
  });

  // Layers the user shows or hides: name -> objects
  const layers = Object.fromEntries(Object.keys(LAYERS).map((name) => [name, []]));
  const named = (object, name, layer) => {
    object.name = name;
    layers[layer].push(object);
    return object;
  };

  // Sea surface at z = 0, moved by the wave: zeta along chi = x cos(beta) + y sin(beta) on a
  // table per frame, interpolated at the vertices (ocean.py)
  const seaGeometry = new THREE.PlaneGeometry(6 * radius, 6 * radius, SURFACE_SEGMENTS, SURFACE_SEGMENTS);
  const sea = named(new THREE.Mesh(
    seaGeometry,
    new THREE.MeshStandardMaterial({ color: 0x4fa3d9, transparent: true, opacity: 0.3, side: THREE.DoubleSide, depthWrite: false }),
  ), 'surface', 'surface');
  sea.position.set(centre.x, centre.y, 0);
  world.add(sea);
  const wave = scene.wave;
  const seaVertices = seaGeometry.attributes.position;
  const chi = new Float64Array(seaVertices.count);
  const chiTable = new Float64Array(CHI_SAMPLES);
  let chiLow = 0;
  let chiStep = 1;
  if (wave) {
    const [c, s] = [Math.cos(wave.direction), Math.sin(wave.direction)];
    for (let i = 0; i < seaVertices.count; i += 1) {
      chi[i] = (centre.x + seaVertices.getX(i)) * c + (centre.y + seaVertices.getY(i)) * s;
    }
    chiLow = Math.min(...chi);
    chiStep = (Math.max(...chi) - chiLow) / (CHI_SAMPLES - 1) || 1;
  }
  function moveSurface(at, k, w) {
    if (!wave) {
      sea.position.z = -sample(scene.sea_elevation, k, w);
      return;
    }
    for (let n = 0; n < CHI_SAMPLES; n += 1) {
      const x = chiLow + n * chiStep;
      let zeta = 0;
      for (let j = 0; j < wave.omega.length; j += 1) {
        zeta += wave.amplitude[j] * Math.sin(wave.omega[j] * at - wave.k[j] * x + wave.phase[j]);
      }
      chiTable[n] = zeta;
    }
    for (let i = 0; i < seaVertices.count; i += 1) {
      const u = Math.min((chi[i] - chiLow) / chiStep, CHI_SAMPLES - 1.000001);
      const n = Math.floor(u);
      seaVertices.setZ(i, -lerp(chiTable[n], chiTable[n + 1], u - n));
    }
    seaVertices.needsUpdate = true;
    seaGeometry.computeVertexNormals();
  }

  // Seabeds, flat at their depths
  for (const depth of scene.seabeds) {
    const bed = named(new THREE.Mesh(
      new THREE.PlaneGeometry(6 * radius, 6 * radius),
      new THREE.MeshStandardMaterial({ color: 0x8a7a55, transparent: true, opacity: 0.85, side: THREE.DoubleSide }),
    ), 'seabed', 'seabed');
    bed.position.set(centre.x, centre.y, depth);
    world.add(bed);
  }

  // Tethers through their nodes, NED
  const cables = scene.tethers.map((tether) => {
    const geometry = new THREE.BufferGeometry();
    geometry.setAttribute('position', new THREE.BufferAttribute(new Float32Array(3 * tether.nodes[0].length), 3));
    const line = named(new THREE.Line(geometry, new THREE.LineBasicMaterial({ color: TETHER })), `tether:${tether.name}`, 'tethers');
    const nodes = new THREE.Points(geometry, new THREE.PointsMaterial({ color: TETHER, size: 4, sizeAttenuation: false }));
    line.add(nodes);
    world.add(line);
    return { tether, geometry };
  });

  // Cameras: the pyramid of the image out to the marker's detection range, on the body;
  // markers (normal along their x) in NED or on their target; the line of sight when seen
  const sights = scene.cameras.map((camera) => {
    const [a, b, c, d] = camera.corners;
    const apex = camera.position;
    const edges = [apex, a, apex, b, apex, c, apex, d, a, b, b, c, c, d, d, a].flat();
    const frame = new THREE.BufferGeometry();
    frame.setAttribute('position', new THREE.Float32BufferAttribute(edges, 3));
    const view = named(new THREE.LineSegments(frame, new THREE.LineBasicMaterial({ color: VIEW })), `view:${camera.name}`, 'views');
    const sides = new THREE.BufferGeometry();
    sides.setAttribute('position', new THREE.Float32BufferAttribute([apex, a, b, apex, b, c, apex, c, d, apex, d, a].flat(), 3));
    view.add(new THREE.Mesh(sides, new THREE.MeshBasicMaterial({ color: VIEW, transparent: true, opacity: 0.12, side: THREE.DoubleSide, depthWrite: false })));
    groups[camera.body].add(view);
    const shape = new THREE.PlaneGeometry(camera.marker.size, camera.marker.size);
    shape.rotateY(Math.PI / 2); // the square in the marker's y-z plane, normal along x
    const markerMaterial = new THREE.MeshStandardMaterial({ color: MARKER_UNSEEN, side: THREE.DoubleSide });
    const marker = named(new THREE.Mesh(shape, markerMaterial), `marker:${camera.name}`, 'markers');
    marker.add(new THREE.ArrowHelper(new THREE.Vector3(1, 0, 0), new THREE.Vector3(), 0.6 * camera.marker.size, 0xe8eef4));
    marker.position.set(...camera.marker.position);
    marker.quaternion.copy(toQuaternion(camera.marker.q));
    (camera.marker.target ? groups[camera.marker.target] : world).add(marker);
    const line = new THREE.BufferGeometry();
    line.setAttribute('position', new THREE.BufferAttribute(new Float32Array(6), 3));
    const sight = named(new THREE.Line(line, new THREE.LineBasicMaterial({ color: MARKER_SEEN })), `sight:${camera.name}`, 'markers');
    world.add(sight);
    return { camera, markerMaterial, marker, sight, line };
  });

  // DVL beams on their body, coloured by bottom lock
  const beams = scene.dvls.map((dvl) => {
    const geometry = new THREE.BufferGeometry();
    geometry.setAttribute('position', new THREE.BufferAttribute(new Float32Array(24), 3));
    geometry.setAttribute('color', new THREE.BufferAttribute(new Float32Array(24), 3));
    const lines = named(new THREE.LineSegments(geometry, new THREE.LineBasicMaterial({ vertexColors: true })), `beams:${dvl.name}`, 'beams');
    groups[dvl.body].add(lines);
    return { dvl, geometry };
  });
  const validColour = new THREE.Color(BEAM_VALID);
  const lostColour = new THREE.Color(BEAM_LOST);

  // Where a point fixed in a body's frame is, NED
  const inWorld = (body, point) => new THREE.Vector3(...point).applyQuaternion(groups[body].quaternion).add(groups[body].position);

  function moveSensors(k, w) {
    const j = w > 0 ? k + 1 : k;
    for (const { tether, geometry } of cables) {
      const position = geometry.attributes.position;
      tether.nodes[k].forEach((node, i) => {
        position.setXYZ(i, ...node.map((x, axis) => lerp(x, tether.nodes[j][i][axis], w)));
      });
      position.needsUpdate = true;
      geometry.computeBoundingSphere();
    }
    for (const { dvl, geometry } of beams) {
      const position = geometry.attributes.position;
      const colour = geometry.attributes.color;
      dvl.directions.forEach((direction, i) => {
        const length = lerp(dvl.lengths[k][i], dvl.lengths[j][i], w);
        position.setXYZ(2 * i, ...dvl.position);
        position.setXYZ(2 * i + 1, ...dvl.position.map((x, axis) => x + length * direction[axis]));
        const shade = !dvl.valid || dvl.valid[k][i] ? validColour : lostColour;
        colour.setXYZ(2 * i, shade.r, shade.g, shade.b);
        colour.setXYZ(2 * i + 1, shade.r, shade.g, shade.b);
      });
      position.needsUpdate = true;
      colour.needsUpdate = true;
      geometry.computeBoundingSphere();
    }
    for (const { camera, markerMaterial, marker, sight, line } of sights) {
      const seen = camera.detected ? camera.detected[k] === 1 : false;
      markerMaterial.color.setHex(seen ? MARKER_SEEN : MARKER_UNSEEN);
      marker.userData.seen = seen;
      sight.userData.seen = seen;
      sight.visible = seen && layerShown('markers');
      if (seen) {
        const from = inWorld(camera.body, camera.position);
        const to = camera.marker.target ? inWorld(camera.marker.target, camera.marker.position) : new THREE.Vector3(...camera.marker.position);
        line.attributes.position.setXYZ(0, from.x, from.y, from.z);
        line.attributes.position.setXYZ(1, to.x, to.y, to.z);
        line.attributes.position.needsUpdate = true;
        line.computeBoundingSphere();
      }
    }
  }

  const hidden = new Set((params.get('hide') || '').split(',').filter(Boolean));
  const layerShown = (name) => !hidden.has(name);
  function showLayer(name, on) {
    if (on) hidden.delete(name); else hidden.add(name);
    for (const object of layers[name]) object.visible = on && (!object.name.startsWith('sight:') || object.userData.seen === true);
  }
  for (const name of Object.keys(LAYERS)) showLayer(name, layerShown(name));

  const floor = scene.frame.grid;
  const origin = new THREE.Vector3(...floor.origin);
  const grid = new THREE.GridHelper(floor.cells * floor.cell, floor.cells, 0x5d7d99, 0x2c4a66);
  grid.rotation.x = Math.PI / 2;
  grid.position.copy(origin);
  if (scene.seabeds.includes(origin.z)) grid.position.z -= 1e-3 * radius; // just above the seabed
  world.add(grid);
  const north = new THREE.ArrowHelper(new THREE.Vector3(1, 0, 0), origin, radius, 0xe8eef4, 0.15 * radius, 0.06 * radius);
  world.add(north);
  const northLabel = label('N', '#e8eef4', 0.12 * radius);
  northLabel.position.copy(origin).add(new THREE.Vector3(1.15 * radius, 0, 0));
  world.add(northLabel);

  // Camera and controls
  const camera = new THREE.PerspectiveCamera(FIELD_OF_VIEW, 1, Math.max(radius / 500, 0.002), 200 * radius);
  const centreView = centre.clone().applyMatrix4(NED_TO_VIEW);
  camera.position.copy(centreView).add(new THREE.Vector3(1.2, 1.0, 1.5).multiplyScalar(0.9 * radius));
  const nedParameter = (key) => new THREE.Vector3(...params.get(key).split(',').map(Number)).applyMatrix4(NED_TO_VIEW);
  if (params.has('camera')) camera.position.copy(nedParameter('camera'));
  const controls = new OrbitControls(camera, renderer.domElement);
  controls.target.copy(params.has('target') ? nedParameter('target') : centreView);
  controls.update();

  // User interface
  const slider = document.getElementById('time');
  const clock = document.getElementById('clock');
  const play = document.getElementById('play');
  const speed = document.getElementById('speed');
  const follow = document.getElementById('follow');
  const status = document.getElementById('status');
  document.getElementById('heading').textContent = scene.title;
  document.getElementById('description').textContent = scene.description;
  document.getElementById('grid').textContent = `floor grid: ${floor.label} squares`;
  const scaleLine = document.getElementById('scale-line');
  const scaleText = document.getElementById('scale-text');
  // The scale bar: the longest round length that fits SCALE_WIDTH at the distance of the view's
  // centre (the orbit target), where a metre is focal / distance pixels
  function showScale() {
    const focal = view.clientHeight / 2 / Math.tan(THREE.MathUtils.degToRad(FIELD_OF_VIEW) / 2);
    const perMetre = focal / Math.max(camera.position.distanceTo(controls.target), 1e-9);
    const lengths = scene.frame.scale.lengths;
    const [length, text] = lengths.filter(([l]) => l * perMetre <= SCALE_WIDTH).pop() || lengths[0];
    scaleLine.style.width = `${length * perMetre}px`;
    scaleText.textContent = text;
  }
  for (const body of scene.bodies) {
    const row = document.createElement('div');
    row.innerHTML = `<span class="swatch" style="background:${body.colour}"></span>`;
    row.append(`${body.name} (${body.shape.kind})`);
    document.getElementById('legend').append(row);
  }
  for (const [name, text] of Object.entries(LAYERS)) {
    if (layers[name].length === 0) continue;
    const row = document.createElement('label');
    const box = document.createElement('input');
    box.type = 'checkbox';
    box.id = `show-${name}`;
    box.checked = layerShown(name);
    box.addEventListener('change', () => showLayer(name, box.checked));
    row.append(box, ` ${text}`);
    document.getElementById('layers').append(row);
  }
  for (const [value, text] of [['scene', 'follow all'], ['free', 'free'], ...scene.bodies.map((b) => [b.name, `follow ${b.name}`])]) {
    follow.append(new Option(text, value));
  }
  follow.value = params.get('follow') || 'scene';
  if (params.has('speed')) speed.value = params.get('speed');
  slider.min = t0;
  slider.max = t1;
  const track = document.getElementById('track');
  const list = document.getElementById('events');
  for (const event of scene.events) {
    const text = `${event.time.toFixed(2)} s  ${event.event}${event.detail ? ': ' + event.detail : ''}`;
    const mark = document.createElement('div');
    mark.className = 'mark';
    mark.style.left = `${(100 * (event.time - t0)) / Math.max(t1 - t0, 1e-9)}%`;
    mark.style.background = scene.event_colours[event.event] || '#8aa0b4';
    mark.title = text;
    track.append(mark);
    const button = document.createElement('button');
    button.textContent = text;
    button.addEventListener('click', () => seek(event.time));
    list.append(button);
  }

  // Detections on the time line: a ribbon per camera under the slider
  scene.cameras.forEach((camera, row) => {
    for (const [a, b] of camera.seen) {
      const ribbon = document.createElement('div');
      ribbon.className = 'seen';
      ribbon.style.left = `${(100 * (a - t0)) / Math.max(t1 - t0, 1e-9)}%`;
      ribbon.style.width = `${(100 * (b - a)) / Math.max(t1 - t0, 1e-9)}%`;
      ribbon.style.top = `${34 + 4 * row}px`;
      ribbon.title = `${camera.name} sees its marker ${a.toFixed(2)}-${b.toFixed(2)} s`;
      track.append(ribbon);
    }
  });

  let t = params.has('t') ? Math.min(Math.max(parseFloat(params.get('t')), t0), t1) : t0;
  let playing = params.has('t') ? params.get('play') === '1' : params.get('play') !== '0';
  let last = null;
  const followed = () => {
    if (follow.value === 'free') return null;
    const names = follow.value === 'scene' ? Object.keys(groups) : [follow.value];
    const sum = new THREE.Vector3();
    for (const name of names) sum.add(groups[name].position);
    return sum.multiplyScalar(1 / names.length).applyMatrix4(NED_TO_VIEW);
  };

  function pose(at) {
    const [k, w] = locate(time, at);
    const j = w > 0 ? k + 1 : k;
    for (const body of scene.bodies) {
      const group = groups[body.name];
      group.position.set(...body.p[k]).lerp(new THREE.Vector3(...body.p[j]), w);
      group.quaternion.copy(toQuaternion(body.q[k])).slerp(toQuaternion(body.q[j]), w);
    }
    for (const { thruster, arrow, direction } of thrusters) {
      const value = thruster.thrust ? sample(thruster.thrust, k, w) : 0;
      const length = scene.thrust_peak > 0 ? (0.2 * Math.abs(value)) / scene.thrust_peak : 0;
      arrow.visible = length > 0.004;
      if (arrow.visible) {
        arrow.setDirection(value >= 0 ? direction : direction.clone().negate());
        arrow.setLength(length + 0.03, 0.03, 0.02);
      }
    }
    const docked = [];
    for (const { port, material } of ports) {
      const on = port.docked.some(([a, b]) => at >= a && (b === null || at < b));
      material.color.setHex(on ? PORT_DOCKED : PORT_FREE);
      if (on && !docked.includes(port.pair)) docked.push(port.pair);
    }
    moveSurface(at, k, w);
    moveSensors(k, w);
    const notes = [];
    for (const tether of scene.tethers) {
      if (tether.tension) notes.push(`${tether.name}: tension ${tether.tension[k][0].toFixed(1)} / ${tether.tension[k][1].toFixed(1)} N`);
    }
    for (const camera of scene.cameras) {
      if (camera.detected) notes.push(`${camera.name}: ${camera.detected[k] ? 'marker seen' : 'no marker'}`);
    }
    const recent = scene.events.filter((e) => e.time <= at).pop();
    status.textContent = `t = ${at.toFixed(2)} s` +
      (docked.length ? `\ndocked: ${docked.join(', ')}` : '') +
      notes.map((note) => `\n${note}`).join('') +
      (recent ? `\nlast event: ${recent.event} at ${recent.time.toFixed(2)} s` : '');
    slider.value = at;
    clock.textContent = `${at.toFixed(2)} / ${t1.toFixed(2)} s`;
    document.body.dataset.time = at.toFixed(3);
  }

  function seek(at) {
    const before = followed();
    t = Math.min(Math.max(at, t0), t1);
    pose(t);
    const after = followed();
    if (before && after) {
      const shift = after.sub(before);
      camera.position.add(shift);
      controls.target.add(shift);
    }
  }

  function resize() {
    const width = view.clientWidth;
    const height = view.clientHeight;
    renderer.setSize(width, height);
    camera.aspect = width / Math.max(height, 1);
    camera.updateProjectionMatrix();
  }

  function setPlaying(on) {
    playing = on;
    if (playing && t >= t1) seek(t0);
    play.textContent = playing ? 'pause' : 'play';
    last = null;
  }

  play.addEventListener('click', () => setPlaying(!playing));
  slider.addEventListener('input', () => seek(parseFloat(slider.value)));
  follow.addEventListener('change', () => {
    const target = followed();
    if (target) {
      camera.position.add(target.clone().sub(controls.target));
      controls.target.copy(target);
    }
  });
  window.addEventListener('keydown', (event) => {
    if (event.code === 'Space') {
      event.preventDefault();
      setPlaying(!playing);
    }
  });
  window.addEventListener('resize', resize);
  resize();
  pose(t);
  const target = followed();
  if (target) {
    camera.position.add(target.clone().sub(controls.target));
    controls.target.copy(target);
  }
  setPlaying(playing);

  function frame(now) {
    if (playing && last !== null) {
      seek(t + ((now - last) / 1000) * parseFloat(speed.value));
      if (t >= t1) setPlaying(false);
    }
    last = now;
    controls.update();
    showScale();
    renderer.render(world3, camera);
    document.body.dataset.ready = 'true';
    requestAnimationFrame(frame);
  }
  requestAnimationFrame(frame);
  window.replay = { scene: world3, world, layers }; // for inspection from the console and tests
}
