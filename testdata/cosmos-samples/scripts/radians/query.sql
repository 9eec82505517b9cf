SELECT VALUE {
    degrees90ToRadians: RADIANS(90),
    degrees180ToRadians: RADIANS(180),
    degrees270ToRadians: RADIANS(270),
    degrees360ToRadians: RADIANS(360)
}