within ;
package Authoring "Small models in the forms Modelica library authors write (murcosim's front-end tests)"
  import SI = Authoring.Units.SI;
  constant Real pi = 3.14159265358979323846 "Ratio of a circle's circumference to its diameter";
end Authoring;
