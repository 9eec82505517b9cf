SELECT
    ARRAY_CONCAT(["apples", "strawberries"], ["bananas"]) AS arrayConcat