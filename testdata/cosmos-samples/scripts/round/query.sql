SELECT VALUE {
    roundTwoPointFour: ROUND(2.4),
    roundTwoPointSix: ROUND(2.6),
    roundTwoPointFive: ROUND(2.5),
    roundNegativeTwoPointFour: ROUND(-2.4),
    roundNegativeTwoPointSix: ROUND(-2.6)
}