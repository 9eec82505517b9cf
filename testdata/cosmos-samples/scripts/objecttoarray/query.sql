SELECT VALUE
    ObjectToArray({ 
        "a": "12345", 
        "b": "67890"
    })