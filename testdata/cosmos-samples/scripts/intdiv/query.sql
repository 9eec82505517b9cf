SELECT VALUE {
    divide: IntDiv(10, 2),
    negativeResult: IntDiv(10, -2),
    positiveResult: IntDiv(-10, -2),
    resultOne: IntDiv(10, 10),
    divideZero: IntDiv(10, 0),
    divideDecimal: IntDiv(10, 0.1)
}