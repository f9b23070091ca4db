within Authoring;
package Components "Components, one class a file"
  import Authoring.Interfaces.*;
end Components;
