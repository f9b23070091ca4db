within RailLib;
package Components "Sliding masses"
end Components;
