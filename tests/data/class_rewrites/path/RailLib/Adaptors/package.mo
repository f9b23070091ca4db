within RailLib;
package Adaptors "Motions led by a time"
end Adaptors;
