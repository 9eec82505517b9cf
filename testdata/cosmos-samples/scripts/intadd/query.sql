SELECT VALUE {
    addNumber: IntAdd(20, 10),
    addZero: IntAdd(20, 0),
    addDecimal: IntAdd(20, 0.10)
}