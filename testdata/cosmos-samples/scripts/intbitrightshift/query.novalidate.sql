SELECT VALUE {
    shiftInteger: IntBitRightShift(16, 4),
    shiftDecimal: IntBitRightShift(16, 0.4)
}