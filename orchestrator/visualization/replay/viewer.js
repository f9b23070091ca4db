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

  // Sea surface (z = -elevation) and a floor grid below the deepest point, north marked
  const sea = new THREE.Mesh(
    new THREE.PlaneGeometry(6 * radius, 6 * radius),
    new THREE.MeshStandardMaterial({ color: 0x4fa3d9, transparent: true, opacity: 0.25, side: THREE.DoubleSide, depthWrite: false }),
  );
  sea.position.set(centre.x, centre.y, 0);
  world.add(sea);
  const floor = scene.frame.grid;
  const origin = new THREE.Vector3(...floor.origin);
  const grid = new THREE.GridHelper(floor.cells * floor.cell, floor.cells, 0x5d7d99, 0x2c4a66);
  grid.rotation.x = Math.PI / 2;
  grid.position.copy(origin);
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
    sea.position.z = -sample(scene.sea_elevation, k, w);
    const recent = scene.events.filter((e) => e.time <= at).pop();
    status.textContent = `t = ${at.toFixed(2)} s` +
      (docked.length ? `\ndocked: ${docked.join(', ')}` : '') +
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
}
