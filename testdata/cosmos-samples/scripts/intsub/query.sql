SELECT VALUE {
    negativeResult: IntSub(25, 50),
    positiveResult: IntSub(25, 15),
    subtractSameNumber: IntSub(25, 25),
    subtractZero: IntSub(25, 0),
    subtractDecimal: IntSub(25, 2.5)
}