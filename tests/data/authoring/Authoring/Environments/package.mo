within Authoring;
package Environments "An environment found through inner/outer, and bodies in it"
end Environments;
