SELECT VALUE {
    compareNumbers: IntBitAnd(15, 25),
    compareZero: IntBitAnd(15, 0),
    compareSameNumber: IntBitAnd(15, 15),
    compareDecimal: IntBitAnd(15, 1.5)
}