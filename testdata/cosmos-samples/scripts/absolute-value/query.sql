SELECT VALUE { 
    absoluteNegativeOne: ABS(-1),
    absoluteZero: ABS(0),
    absoluteOne: ABS(1) 
}