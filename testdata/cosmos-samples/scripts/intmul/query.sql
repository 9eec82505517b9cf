SELECT VALUE {
    multiply: IntMul(5, 2),
    negativeResult: IntMul(5, -2),
    positiveResult: IntMul(-5, -2),
    square: IntMul(5, 5),
    cube: IntMul(5, IntMul(5, 5)),
    multiplyZero: IntMul(5, 0),
    multiplyDecimal: IntMul(5, 0.5)
}