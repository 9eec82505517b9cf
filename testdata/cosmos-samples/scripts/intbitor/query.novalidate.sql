SELECT VALUE {
    inclusiveOr: IntBitOr(56, 100),
    inclusiveOrSame: IntBitOr(56, 56),
    inclusiveOrZero: IntBitOr(56, 0),
    inclusiveOrDecimal: IntBitOr(56, 0.1)
}