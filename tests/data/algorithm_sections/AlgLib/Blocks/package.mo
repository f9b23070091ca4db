within AlgLib;
package Blocks "Blocks computed by algorithm sections"
end Blocks;
