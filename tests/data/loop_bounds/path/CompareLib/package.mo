package CompareLib "A matrix comparison leaving its loops early, and a shaft whose gear it makes ideal"
  package Functions "Functions of the library"
    function sameMatrix "Whether two matrices have the same size and the same elements"
      input Real A[:, :] "First matrix";
      input Real B[:, :] "Second matrix, of any size";
      input Real tol(min = 0) = 0 "Largest difference of two elements taken as equal";
      output Boolean same "= true, if A and B have the same size and elements";
    protected
      Integer rows = size(A, 1) "Rows of A";
      Integer columns = size(A, 2) "Columns of A";
      Integer r = 1 "Row compared";
      Integer c "Column compared";
    algorithm
      same := false;
      if size(B, 1) == rows and size(B, 2) == columns then
        same := true;
        while r <= rows loop
          c := 1;
          while c <= columns loop
            if abs(A[r, c] - B[r, c]) > tol then
              // the first differing element ends both loops
              same := false;
              r := rows;
              c := columns;
            end if;
            c := c + 1;
          end while;
          r := r + 1;
        end while;
      end if;
    end sameMatrix;
  end Functions;

  model LossyShaft "A torque 1 + t through a gear with losses from a table onto an inertia"
    parameter Real lossTable[:, 3] = [0, 1, 0]
      "Rows of speed (rad/s), mesh efficiency (1) and bearing friction (N.m); the first row used";
    parameter Real J(unit = "kg.m2") = 2 "Inertia of the shaft";
    Boolean ideal "= true, if lossTable = [0, 1, 0]: no losses";
    Real eta(unit = "1") "Mesh efficiency";
    Real tau_f(unit = "N.m") "Bearing friction";
    Real tau(unit = "N.m") = 1 + time "Driving torque";
    Real w(unit = "rad/s", start = 0, fixed = true) "Speed of the shaft";
  equation
    ideal = Functions.sameMatrix(lossTable, [0, 1, 0], 1e-12);
    if ideal then
      eta = 1;
      tau_f = 0;
    else
      eta = lossTable[1, 2];
      tau_f = lossTable[1, 3];
    end if;
    J*der(w) = eta*tau - tau_f;
  end LossyShaft;
end CompareLib;
