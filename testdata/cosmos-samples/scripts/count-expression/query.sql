SELECT VALUE {
    countScalar: COUNT(1),
    countExpression: COUNT(2 + 3)
}