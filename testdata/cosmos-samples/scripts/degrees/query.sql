SELECT VALUE {
    radiansHalfPiToDegrees: DEGREES(1.5707963267948966),
    radiansPiToDegrees: DEGREES(3.141592653589793),
    radiansOneAndHalfPiToDegrees: DEGREES(4.71238898038469),
    radiansDoublePiToDegrees: DEGREES(6.283185307179586)
}