SELECT VALUE { 
    arccosine: ACOS(-1) 
}