SELECT VALUE {
    areaPolygon: ST_AREA({
        "type": "Polygon",
        "coordinates": [ [
            [ 31.8, -5 ],
            [ 32, -5 ],
            [ 32, -4.7 ],
            [ 31.8, -4.7 ],
            [ 31.8, -5 ]
        ] ]
    })
}