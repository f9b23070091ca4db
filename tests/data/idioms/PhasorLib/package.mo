within;
package PhasorLib "Alternating-current circuits in phasors: an operator record for complex numbers"
  operator record Complex "A complex number"
    Real re "Real part";
    Real im "Imaginary part";

    encapsulated operator 'constructor' "Constructors"
      function fromReal "A complex number from its parts"
        import PhasorLib.Complex;
        input Real re "Real part";
        input Real im = 0 "Imaginary part";
        output Complex result(re = re, im = im) "The number";
      algorithm
        annotation(Inline = true);
      end fromReal;
    end 'constructor';

    encapsulated operator function '+' "Sum"
      import PhasorLib.Complex;
      input Complex a;
      input Complex b;
      output Complex c "a + b";
    algorithm
      c := Complex(a.re + b.re, a.im + b.im);
    end '+';

    encapsulated operator '-' "Difference and negation"
      function negate "Negation"
        import PhasorLib.Complex;
        input Complex a;
        output Complex c "-a";
      algorithm
        c := Complex(-a.re, -a.im);
      end negate;

      function subtract "Difference"
        import PhasorLib.Complex;
        input Complex a;
        input Complex b;
        output Complex c "a - b";
      algorithm
        c := Complex(a.re - b.re, a.im - b.im);
      end subtract;
    end '-';

    encapsulated operator function '*' "Product"
      import PhasorLib.Complex;
      input Complex a;
      input Complex b;
      output Complex c "a*b";
    algorithm
      c := Complex(a.re*b.re - a.im*b.im, a.re*b.im + a.im*b.re);
    end '*';

    encapsulated operator function '/' "Quotient"
      import PhasorLib.Complex;
      input Complex a;
      input Complex b;
      output Complex c "a/b";
    algorithm
      c := Complex((a.re*b.re + a.im*b.im)/(b.re^2 + b.im^2),
                   (a.im*b.re - a.re*b.im)/(b.re^2 + b.im^2));
    end '/';
  end Complex;

  function abs "Magnitude of a complex number"
    input Complex c;
    output Real result "|c|";
  algorithm
    result := sqrt(c.re^2 + c.im^2);
  end abs;

  model SeriesRLC "Phasor current of a series R-L-C branch driven at a frequency that sweeps"
    parameter Real R(unit = "Ohm") = 10 "Resistance";
    parameter Real L(unit = "H") = 0.05 "Inductance";
    parameter Real C(unit = "F") = 1e-4 "Capacitance";
    parameter Complex V = Complex(230, 0) "Source voltage phasor (V)";
    Real f(unit = "Hz") = 20 + 40*time "Frequency";
    Real omega(unit = "rad/s") = 2*3.14159265358979323846*f "Angular frequency";
    Complex Z "Impedance (Ohm)";
    Complex I "Current phasor (A)";
    output Real I_re(unit = "A") = I.re "Current, real part";
    output Real I_im(unit = "A") = I.im "Current, imaginary part";
    output Real I_abs(unit = "A") = abs(I) "Current amplitude";
  equation
    Z = Complex(R) + Complex(0, omega*L) + 1/Complex(0, omega*C);
    V = Z*I;
  end SeriesRLC;

  model PhasorSum "Sums and differences of phasors in a model"
    parameter Complex a = Complex(1, 2) "First phasor";
    parameter Complex b = Complex(3, -1) "Second phasor";
    Complex s = a + b*Complex(0, time) "Sum";
    Complex d = -a - b "Difference";
    output Real s_re = s.re;
    output Real s_im = s.im;
    output Real d_re = d.re;
    output Real d_im = d.im;
  end PhasorSum;
end PhasorLib;
