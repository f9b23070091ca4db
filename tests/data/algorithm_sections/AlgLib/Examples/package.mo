within AlgLib;
package Examples "Models built from the blocks and with algorithm sections of their own"
end Examples;
