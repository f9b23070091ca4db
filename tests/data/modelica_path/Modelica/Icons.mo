within Modelica;
package Icons "Icon base classes"
  partial package Package "Icon of a package"
  end Package;
end Icons;
