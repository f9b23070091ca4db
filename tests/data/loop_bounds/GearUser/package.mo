package GearUser "Drives through CompareLib's shaft, and a search leaving its loop early"
  function firstDifference "Index of the first element where two vectors differ by more than tol"
    input Real a[:] "First vector";
    input Real b[size(a, 1)] "Second vector";
    input Real tol(min = 0) = 0 "Largest difference of two elements taken as equal";
    output Integer index "Index of the first differing element, 0 if none";
  protected
    Integer k "Element compared";
  algorithm
    index := 0;
    k := 1;
    while k <= size(a, 1) loop
      if abs(a[k] - b[k]) > tol then
        index := k;
        k := size(a, 1);
      end if;
      k := k + 1;
    end while;
  end firstDifference;

  model IdealDrive "The shaft with the table of no losses"
    CompareLib.LossyShaft shaft(lossTable = [0, 1, 0]);
  end IdealDrive;

  model LossyDrive "The shaft with losses in a table of two rows"
    CompareLib.LossyShaft shaft(lossTable = [0, 0.8, 0.3; 10, 0.7, 0.4]);
  end LossyDrive;

  model Differences "First differing elements of vectors"
    parameter Real a[4] = {1, 2, 3, 4} "Vector compared";
    parameter Real b[4] = {1, 2.5, 3, 5} "Vector differing from a at its 2nd and 4th elements";
    Real second "2, though the 4th element differs too";
    Real close "Within the tolerance 1: 0";
  equation
    second = firstDifference(a, b, 0.1);
    close = firstDifference(a, b, 1);
  end Differences;
end GearUser;
