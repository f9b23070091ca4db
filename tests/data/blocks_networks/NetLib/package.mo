within;
package NetLib "Boolean and Integer signal blocks in the style of block libraries: edges, changes, counters and vectors of inputs"
  connector BooleanInput = input Boolean "Boolean input signal";
  connector BooleanOutput = output Boolean "Boolean output signal";
  connector IntegerOutput = output Integer "Integer output signal";

  block Window "y is true from tOn to tOff and again from tAgain on"
    parameter Real tOn = 0.3 "Time of the first rising edge (s)";
    parameter Real tOff = 0.6 "Time of the falling edge (s)";
    parameter Real tAgain = 0.8 "Time of the second rising edge (s)";
    BooleanOutput y "Output";
  equation
    y = time > tOn and time < tOff or time > tAgain;
  end Window;

  block Rising "y = edge(u): true at the instants u becomes true"
    parameter Boolean pre_u_start = false "Value of pre(u) at the start";
    BooleanInput u "Input";
    BooleanOutput y "Output";
  initial equation
    pre(u) = pre_u_start;
  equation
    y = edge(u);
  end Rising;

  block Falling "y = edge(not u): true at the instants u becomes false"
    parameter Boolean pre_u_start = false "Value of pre(u) at the start";
    BooleanInput u "Input";
    BooleanOutput y "Output";
  initial equation
    pre(u) = pre_u_start;
  equation
    y = edge(not u);
  end Falling;

  block Changing "y = change(u): true at the instants u changes"
    parameter Boolean pre_u_start = false "Value of pre(u) at the start";
    BooleanInput u "Input";
    BooleanOutput y "Output";
  initial equation
    pre(u) = pre_u_start;
  equation
    y = change(u);
  end Changing;

  block Counter "count: the number of rising edges of trigger so far"
    BooleanInput trigger "Counted signal";
    IntegerOutput count "Number of rising edges of trigger";
  initial equation
    pre(count) = 0;
  equation
    when trigger then
      count = pre(count) + 1;
    end when;
  end Counter;

  model Edges "Rising, falling and changing edges of a window counted"
    Window window;
    Rising rising;
    Changing changing;
    Falling falling;
    Counter falls;
    Counter rises;
    Counter changes;
  equation
    connect(window.y, rising.u);
    connect(window.y, changing.u);
    connect(rising.y, rises.trigger);
    connect(changing.y, changes.trigger);
    connect(window.y, falling.u);
    connect(falling.y, falls.trigger);
  end Edges;

  block And "y = u[1] and u[2] and ... and u[nu]"
    parameter Integer nu = 0 "Number of inputs";
    BooleanInput u[nu] "Inputs";
    BooleanOutput y "Output";
  equation
    y = u[1] and u[2];
  end And;

  model Chain "An output into two vectors of inputs, one of them fed by the other block"
    Window first(tOn = 0.2, tOff = 0.9, tAgain = 2);
    Window second(tOn = 0.4, tOff = 0.7, tAgain = 0.85);
    And and1(nu = 2);
    And and2(nu = 2);
  equation
    connect(first.y, and1.u[1]);
    connect(second.y, and1.u[2]);
    connect(and1.y, and2.u[1]);
    connect(second.y, and2.u[2]);
  end Chain;

  block AndOfBoth "y = (v and u) and u, u fed into two blocks' vectors of inputs"
    BooleanInput u "Input fed into both blocks";
    BooleanInput v "Input of the first block only";
    BooleanOutput y "Output";
    And and1(nu = 2);
    And and2(nu = 2);
  equation
    connect(v, and1.u[1]);
    connect(u, and1.u[2]);
    connect(and1.y, and2.u[1]);
    connect(u, and2.u[2]);
    connect(and2.y, y);
  end AndOfBoth;

  model NestedChain "Chain inside a block, the block's own input the set's source"
    Window first(tOn = 0.2, tOff = 0.9, tAgain = 2);
    Window second(tOn = 0.4, tOff = 0.7, tAgain = 0.85);
    AndOfBoth both;
  equation
    connect(first.y, both.v);
    connect(second.y, both.u);
  end NestedChain;

  block Sum "y = u[1] + u[2] + ... + u[nu]"
    parameter Integer nu = 0 "Number of inputs";
    input Integer u[nu] "Inputs";
    IntegerOutput y "Output";
  equation
    y = sum(u);
  end Sum;

  block Level "y = low before tStep, high after"
    parameter Integer low = 1 "Value before tStep";
    parameter Integer high = 2 "Value after tStep";
    parameter Real tStep = 0.5 "Time of the step (s)";
    IntegerOutput y "Output";
  equation
    y = if time > tStep then high else low;
  end Level;

  block Twice "y = 2 u"
    input Integer u "Input";
    IntegerOutput y "Output";
  equation
    y = 2*u;
  end Twice;

  model IntegerChain "Integer outputs into vectors of inputs, chained through them or a scalar input"
    Level a(low = 1, high = 3, tStep = 0.3);
    Level b(low = 10, high = 20, tStep = 0.6);
    Sum sum1(nu = 2);
    Sum sum2(nu = 2);
    Sum sum3(nu = 3);
    Twice twice;
  equation
    connect(a.y, sum1.u[1]);
    connect(b.y, sum1.u[2]);
    connect(sum1.y, sum2.u[1]);
    connect(b.y, sum2.u[2]);
    connect(a.y, sum3.u[1]);
    connect(sum2.y, twice.u);
    connect(sum2.y, sum3.u[2]);
    connect(b.y, sum3.u[3]);
  end IntegerChain;

  model ChainInLoop "Chain whose connections into the second inputs stand in a for-equation"
    Window first(tOn = 0.2, tOff = 0.9, tAgain = 2);
    Window second(tOn = 0.4, tOff = 0.7, tAgain = 0.85);
    And and1(nu = 2);
    And and2(nu = 2);
  equation
    connect(first.y, and1.u[1]);
    connect(and1.y, and2.u[1]);
    for i in 2:2 loop
      connect(second.y, and1.u[i]);
      connect(second.y, and2.u[i]);
    end for;
  end ChainInLoop;

  model ChainByEquation "Chain with the second output's last connection written as an equation"
    Window first(tOn = 0.2, tOff = 0.9, tAgain = 2);
    Window second(tOn = 0.4, tOff = 0.7, tAgain = 0.85);
    And and1(nu = 2);
    And and2(nu = 2);
  equation
    connect(first.y, and1.u[1]);
    connect(second.y, and1.u[2]);
    connect(and1.y, and2.u[1]);
    and2.u[2] = second.y;
  end ChainByEquation;

  function firstTrue "Index of the first true element of b, 0 where none is"
    input Boolean b[:] "Vector";
    output Integer index "Index of its first true element";
  algorithm
    index := 0;
    for i in 1:size(b, 1) loop
      if b[i] then
        index := i;
        return;
      end if;
    end for;
  end firstTrue;

  block IntegerSwitch "y = expr[i] for the first true u[i]; where none is, y keeps its value"
    parameter Integer nu = 0 "Number of inputs";
    input Integer expr[nu] = fill(0, nu) "Values chosen by u";
    parameter Integer y_start = 0 "Value of y before any u[i] is true";
    BooleanInput u[nu] "Choices";
    IntegerOutput y "Chosen value";
  protected
    Integer firstActive "Index of the first true u[i], 0 where none is";
  initial equation
    pre(y) = y_start;
  equation
    firstActive = firstTrue(u);
    y = if firstActive == 0 then pre(y) else expr[firstActive];
  end IntegerSwitch;

  block RealSwitch "y = expr[i] for the first true u[i], y_default where none is"
    parameter Integer nu = 0 "Number of inputs";
    input Real expr[nu] = fill(0.0, nu) "Values chosen by u";
    parameter Real y_default = 0 "Value of y where no u[i] is true";
    BooleanInput u[nu] "Choices";
    output Real y "Chosen value";
  protected
    Integer firstActive "Index of the first true u[i], 0 where none is";
  equation
    firstActive = firstTrue(u);
    y = if firstActive == 0 then y_default else expr[firstActive];
  end RealSwitch;

  model Switches "Values chosen by the first of two windows that is open"
    Window first(tOn = 0.2, tOff = 0.5, tAgain = 0.9);
    Window second(tOn = 0.4, tOff = 0.7, tAgain = 2);
    Window first2(tOn = 0.2, tOff = 0.5, tAgain = 0.9);
    Window second2(tOn = 0.4, tOff = 0.7, tAgain = 2);
    IntegerSwitch integerSwitch(nu = 2, expr = {3, 7}, y_start = -1);
    RealSwitch realSwitch(nu = 2, expr = {sin(2*time), 1 + time}, y_default = 0.5);
  equation
    connect(first.y, integerSwitch.u[1]);
    connect(second.y, integerSwitch.u[2]);
    connect(first2.y, realSwitch.u[1]);
    connect(second2.y, realSwitch.u[2]);
  end Switches;


  block GuardedSwitch "IntegerSwitch guarding its subscript by a relation, not an equality"
    parameter Integer nu = 0 "Number of inputs";
    input Integer expr[nu] = fill(0, nu) "Values chosen by u";
    BooleanInput u[nu] "Choices";
    IntegerOutput y "Chosen value";
  protected
    Integer firstActive "Index of the first true u[i], 0 where none is";
  initial equation
    pre(y) = 0;
  equation
    firstActive = firstTrue(u);
    y = if firstActive > 0 then expr[firstActive] else pre(y);
  end GuardedSwitch;

  model GuardedSwitches "GuardedSwitch as Switches' Integer switch"
    Window first(tOn = 0.2, tOff = 0.5, tAgain = 0.9);
    Window second(tOn = 0.4, tOff = 0.7, tAgain = 2);
    GuardedSwitch guardedSwitch(nu = 2, expr = {3, 7});
  equation
    connect(first.y, guardedSwitch.u[1]);
    connect(second.y, guardedSwitch.u[2]);
  end GuardedSwitches;

  function rowsPassed "Index of the first time in times after t, the last index at most"
    input Real times[:] "Increasing times (s)";
    input Real t "Time (s)";
    output Integer next "Index of the first time after t, size(times, 1) at most";
  algorithm
    next := 1;
    while next < size(times, 1) and t >= times[next] loop
      next := next + 1;
    end while;
  end rowsPassed;

  model Rows "A table's row found by a search up from its first row, at samples"
    parameter Real times[4] = {0.25, 0.55, 0.75, 1.0} "Times of the table's rows (s)";
    discrete Integer row(start = 1, fixed = true) "Index of the first row after the sample";
  equation
    when sample(0, 0.1) then
      row = rowsPassed(times, time);
    end when;
  end Rows;
end NetLib;
