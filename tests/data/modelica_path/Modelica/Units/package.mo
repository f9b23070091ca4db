within Modelica;
package Units "Units and quantities"
end Units;
