SELECT VALUE 
    CHOOSE(1, "adventure", "works", true, [1])