within RailLib;
package Sources "Motions given by signals"
end Sources;
