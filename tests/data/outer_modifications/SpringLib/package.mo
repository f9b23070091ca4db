package SpringLib "Outer modifications of a spring constant computed at initialization"
  model Preloaded "Mass on a spring whose constant is an initial equation unless fixed"
    parameter Real c(fixed = false) = 20 "spring constant (N/m)";
    parameter Real m = 1 "mass (kg)";
    Real s(start = 1, fixed = true) "extension (m)";
    Real v(start = 0, fixed = true) "velocity (m/s)";
  equation
    der(s) = v;
    m*der(v) = -c*s;
  end Preloaded;

  model Holder "A spring inside another model"
    Preloaded spring;
  end Holder;

  model OwnDeclaration "Attributes and value on the component's own declaration"
    Preloaded spring(c(fixed = true) = 40);
  end OwnDeclaration;

  model ValueInExtends "The value alone in an extends clause"
    extends Preloaded(c = 40);
  end ValueInExtends;

  model AttributeInExtends "The attribute alone in an extends clause"
    extends Preloaded(c(fixed = true));
  end AttributeInExtends;

  model NestedValue "The value alone, nested in another component's modification"
    Holder holder(spring(c = 40));
  end NestedValue;

  model EachInArray "Attributes and value of each element of a component array"
    Preloaded springs[2](each c(fixed = true) = 40);
  end EachInArray;

  model BothInExtends "Attributes and value in an extends clause: refused"
    extends Preloaded(c(fixed = true) = 40);
  end BothInExtends;

  model BothNested "Attributes and value nested in another component's modification: refused"
    Holder holder(spring(c(fixed = true) = 40));
  end BothNested;

  model BothDotted "Attributes and value by a dotted name: refused"
    Holder holder(spring.c(fixed = true) = 40);
  end BothDotted;

  model StartInExtends "A start value and a value in an extends clause: refused"
    extends Preloaded(m(start = 2) = 4);
  end StartInExtends;

  model CommentedInExtends "Attributes and value after a comment with a semicolon: refused"
    extends Preloaded( // stiffer; and fixed
      c(fixed = true) = 40);
  end CommentedInExtends;
end SpringLib;
