within;
package AlgLib "Algorithm sections that assign several variables and read what they assigned"
  annotation (Documentation(info = "<html><p>Blocks and models whose algorithm sections
assign several variables, read a variable after assigning it and decide with relations, in
the forms library authors write.</p></html>"));
end AlgLib;
