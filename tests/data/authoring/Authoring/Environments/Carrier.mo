within Authoring.Environments;
model Carrier "Carries a Sinker one level down, passing its record on"
  parameter Data.BodyData data "Body";
  Sinker sinker(data = data) "The sinker";
end Carrier;
