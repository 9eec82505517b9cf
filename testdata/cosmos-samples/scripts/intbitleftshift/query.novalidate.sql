SELECT VALUE {
    shiftInteger: IntBitLeftShift(16, 4),
    shiftDecimal: IntBitLeftShift(16, 0.4)
}