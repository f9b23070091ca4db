within ;
package NoiseLib "Noise sources in the Modelica Standard Library's style: a global seed, sampled xorshift generators in C, an impure generator"

  model GlobalSeed "The seed of all noise sources below it (inner globalSeed)"
    parameter Integer fixedSeed = 67867967 "Global seed";
    final parameter Integer seed(fixed = false) "Seed actually used";
    final parameter Integer id_impure(fixed = false)
      "Id of the impure generator, seeded with seed (passed to its calls so that they follow)";
  initial algorithm
    seed := fixedSeed;
    id_impure := seedImpure(seed);
  end GlobalSeed;

  pure function step "The state of the generator after one step"
    input Integer stateIn[2] "State (high word first)";
    output Integer stateOut[2] "Next state";
  external "C" NoiseLib_step(stateIn, stateOut)
    annotation (Include = "#include \"NoiseRandom.c\"",
      IncludeDirectory = "modelica://NoiseLib/Resources/C-Sources");
  end step;

  pure function unit "The number in (0, 1] a state of the generator stands for"
    input Integer state[2] "State (high word first)";
    output Real r "Uniform random number in (0, 1]";
  external "C" r = NoiseLib_unit(state)
    annotation (Include = "#include \"NoiseRandom.c\"",
      IncludeDirectory = "modelica://NoiseLib/Resources/C-Sources");
  end unit;

  pure function random "A number of the generator and its next state, in one call"
    input Integer stateIn[2] "State (high word first)";
    output Real result "Uniform random number in (0, 1]";
    output Integer stateOut[2] "Next state";
  external "C" NoiseLib_random(stateIn, stateOut, result)
    annotation (Include = "#include \"NoiseRandom.c\"",
      IncludeDirectory = "modelica://NoiseLib/Resources/C-Sources");
  end random;

  impure function seedImpure "Seeds the impure generator; its id"
    input Integer seed "Seed";
    output Integer id "Id to pass to impureDraw";
  external "C" id = NoiseLib_seedImpure(seed)
    annotation (Include = "#include \"NoiseRandom.c\"",
      IncludeDirectory = "modelica://NoiseLib/Resources/C-Sources");
  end seedImpure;

  impure function automaticSeed "A seed of this run, another at each (as MSL's automaticGlobalSeed)"
    output Integer seed "Seed";
  external "C" seed = NoiseLib_automaticSeed(0.0)
    annotation (Include = "#include \"NoiseRandom.c\"",
      IncludeDirectory = "modelica://NoiseLib/Resources/C-Sources");
  end automaticSeed;

  impure function impureDraw "The next number of the impure generator"
    input Integer id "Id from seedImpure";
    output Real r "Uniform random number in (0, 1]";
  external "C" r = NoiseLib_impureDraw(id)
    annotation (Include = "#include \"NoiseRandom.c\"",
      IncludeDirectory = "modelica://NoiseLib/Resources/C-Sources");
  end impureDraw;

  function seededState "A state from a local and a global seed, stepped three times"
    input Integer localSeed "Local seed";
    input Integer globalSeed "Global seed";
    output Integer state[2] "State (high word first)";
  algorithm
    state := if localSeed == 0 and globalSeed == 0 then {126247697, 0}
      else {localSeed, globalSeed};
    for i in 1:3 loop
      state := step(state);
    end for;
  end seededState;

  impure function tally "Adds k to a tally kept in C; the tally"
    input Integer k "Added";
    output Integer total "The tally";
  external "C" total = NoiseLib_tally(k)
    annotation (Include = "#include \"NoiseRandom.c\"",
      IncludeDirectory = "modelica://NoiseLib/Resources/C-Sources");
  end tally;

  function fillState "A state vector of nState elements from two seeds, as MSL's initialStateWithXorshift64star fills one: slices in a for loop of step 2"
    input Integer localSeed "Local seed";
    input Integer globalSeed "Global seed";
    input Integer nState(min = 1) "Size of the state vector";
    output Integer[nState] state "State vector (pairs, the high word first)";
  protected
    Real r "Number drawn, not used";
    Integer aux[2] "A pair";
    Integer nStateEven "The largest even number up to nState";
  algorithm
    aux := seededState(localSeed, globalSeed);
    if nState >= 2 then
      state[1:2] := aux;
    else
      state[1] := aux[1];
    end if;
    nStateEven := 2*div(nState, 2);
    for i in 3:2:nStateEven loop
      (r, aux) := random(state[i-2:i-1]);
      state[i:i+1] := aux;
    end for;
    if nState >= 3 and nState <> nStateEven then
      (r, aux) := random(state[nState-2:nState-1]);
      state[nState] := aux[1];
    end if;
  end fillState;

  function initializeHidden "Stores a filled state vector in the impure generator; not declared impure, as MSL's initializeImpureRandom"
    input Integer seed "Seed";
    output Integer id "Id to pass to impureDraw";
  protected
    constant Integer localSeed = 715827883 "A large prime";
    Integer hiddenState[5] "State vector";

    impure function setHidden "Stores a state vector in the impure generator"
      input Integer[5] state "State vector";
      input Integer id "Id";
    external "C" NoiseLib_setHidden(state, size(state, 1), id)
      annotation (Include = "#include \"NoiseRandom.c\"",
        IncludeDirectory = "modelica://NoiseLib/Resources/C-Sources");
    end setHidden;

  algorithm
    hiddenState := fillState(localSeed, seed, size(hiddenState, 1));
    id := 1;
    setHidden(hiddenState, id);
  end initializeHidden;

  pure function hashName "A seed from a name, as MSL's automaticLocalSeed hashes an instance's"
    input String name "Name";
    output Integer hash "Its hash";
  external "C" hash = NoiseLib_hash(name)
    annotation (Include = "int NoiseLib_hash(const char* text);", Library = "NoiseHash");
  end hashName;

  block UniformNoise "Uniform noise in [y_min, y_max], drawn every samplePeriod"
    parameter Real samplePeriod(unit = "s") = 0.1 "Period of the draws";
    parameter Real y_min = 0 "Lower limit of y";
    parameter Real y_max = 1 "Upper limit of y";
    parameter Integer localSeed = 1 "Seed of this block";
    output Real y "Noise";
  protected
    outer GlobalSeed globalSeed;
    parameter Integer globalSeedValue = globalSeed.seed "The global seed";
    discrete Integer state[2] "State of the generator";
    discrete Real r "Number drawn";
  initial equation
    pre(state) = seededState(localSeed, globalSeedValue);
    r = y_min + (y_max - y_min)*unit(pre(state));
  equation
    when sample(0, samplePeriod) then
      state = step(pre(state));
      r = y_min + (y_max - y_min)*unit(pre(state));
    end when;
    y = r;
  end UniformNoise;

  block DrawnNoise "Uniform noise in [y_min, y_max], a number and the next state drawn by one call"
    parameter Real samplePeriod(unit = "s") = 0.1 "Period of the draws";
    parameter Real y_min = 0 "Lower limit of y";
    parameter Real y_max = 1 "Upper limit of y";
    parameter Integer localSeed = 1 "Seed of this block";
    output Real y "Noise";
  protected
    outer GlobalSeed globalSeed;
    parameter Integer globalSeedValue = globalSeed.seed "The global seed";
    discrete Integer state[2] "State of the generator";
    discrete Real r_raw "Number drawn, in (0, 1]";
  initial equation
    pre(state) = seededState(localSeed, globalSeedValue);
    r_raw = unit(pre(state));
  equation
    when sample(0, samplePeriod) then
      (r_raw, state) = random(pre(state));
    end when;
    y = y_min + (y_max - y_min)*r_raw;
  end DrawnNoise;

  block ImpureNoise "Noise from the impure generator, drawn every samplePeriod"
    parameter Real samplePeriod(unit = "s") = 0.1 "Period of the draws";
    output Real y "Noise";
  protected
    outer GlobalSeed globalSeed;
    discrete Real r(start = 0, fixed = true) "Number drawn";
  equation
    when sample(0, samplePeriod) then
      r = impureDraw(globalSeed.id_impure);
    end when;
    y = r;
  end ImpureNoise;

  model TwoSeeds "Two uniform noise sources of different local seeds, through a first-order filter"
    inner GlobalSeed globalSeed(fixedSeed = 4711);
    UniformNoise noise1(samplePeriod = 0.1, y_min = -1, y_max = 3, localSeed = 1);
    UniformNoise noise2(samplePeriod = 0.25, localSeed = 2);
    Real x(start = 0, fixed = true) "Filtered noise1";
    output Real y1 = noise1.y;
    output Real y2 = noise2.y;
  equation
    der(x) = noise1.y - x;
    annotation (experiment(StopTime = 1));
  end TwoSeeds;

  model BoundSeed "A global seed bound to an impure function: drawn as the FMU initializes"
    inner GlobalSeed globalSeed(fixedSeed = automaticSeed());
    UniformNoise noise(samplePeriod = 0.1, y_min = -1, y_max = 3, localSeed = 1);
    parameter Integer doubled = 2*globalSeed.fixedSeed "A parameter bound to the seed";
    output Real y = noise.y;
    output Real seed = globalSeed.seed;
    output Real seed2 = doubled;
    annotation (experiment(StopTime = 1));
  end BoundSeed;

  model TupleDraws "Noise drawn by a call of two outputs in a when-equation"
    inner GlobalSeed globalSeed(fixedSeed = 4711);
    DrawnNoise noise(samplePeriod = 0.1, y_min = -1, y_max = 3, localSeed = 1);
    output Real y = noise.y;
    annotation (experiment(StopTime = 1));
  end TupleDraws;

  model ImpureSamples "The impure generator drawn every 0.1 s"
    inner GlobalSeed globalSeed(fixedSeed = 42);
    ImpureNoise noise(samplePeriod = 0.1);
    output Real y = noise.y;
    annotation (experiment(StopTime = 1));
  end ImpureSamples;

  model ImpureStatements "The impure generator drawn in a when-statement, a state event between samples"
    inner GlobalSeed globalSeed(fixedSeed = 42);
    discrete Real r(start = 0, fixed = true) "Number drawn";
    discrete Real c(start = 0, fixed = true) "The number of a constant state";
    Real x(start = 0, fixed = true) "Crosses 0.25 at t = 0.125 s";
    output Real y = r;
    output Real yc = c;
    output Real yk = unit({3, 4}) "The same in an equation";
  algorithm
    when sample(0, 0.1) then
      r := impureDraw(globalSeed.id_impure);
      c := unit({3, 4});
    end when;
  equation
    der(x) = if x > 0.25 then 1 else 2;
    annotation (experiment(StopTime = 1));
  end ImpureStatements;
  model HiddenSeed "The impure generator seeded as MSL's GlobalSeed seeds it, a seed in a branch not taken"
    parameter Integer fixedSeed = 4711 "Seed";
    parameter Boolean tallied = false "Whether the seed is the tally's (not taken)";
    final parameter Integer seed(fixed = false) "Seed used";
    final parameter Integer id(fixed = false) "Id of the impure generator";
    discrete Real r(start = 0, fixed = true) "Number drawn";
    discrete Integer count(start = 0, fixed = true) "The tally";
    output Real y = r;
    output Real calls = count;
  initial equation
    seed = if tallied then tally(100) else fixedSeed;
    id = initializeHidden(seed);
  equation
    when sample(0, 0.1) then
      r = impureDraw(id);
      count = tally(0);
    end when;
    annotation (experiment(StopTime = 1));
  end HiddenSeed;
  model HashedSeed "A seed hashed from a name by a function of a library compiled from its C source, of constant arguments"
    parameter Integer seed = hashName("NoiseLib.HashedSeed.noise") "Seed";
    output Real y = seed;
    annotation (experiment(StopTime = 1));
  end HashedSeed;
end NoiseLib;
