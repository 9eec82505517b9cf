SELECT VALUE {
    complementNumber: IntBitNot(65),
    complementZero: IntBitNot(0),
    complementDecimal: IntBitNot(0.1)
}