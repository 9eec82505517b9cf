SELECT VALUE
    CONCAT("adventure", "works") 