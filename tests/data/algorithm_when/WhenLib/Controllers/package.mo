within WhenLib;
package Controllers "Discrete blocks"
end Controllers;
