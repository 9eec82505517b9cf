SELECT VALUE {
    ceilingPositiveInteger: CEILING(123.45), 
    ceilingNegativeInteger: CEILING(-45.72),
    ceilingZero: CEILING(0)
}