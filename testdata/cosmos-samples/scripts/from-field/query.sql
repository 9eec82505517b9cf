SELECT 
    *
FROM
    employees.employment e
WHERE
    e.team = "Retail support"