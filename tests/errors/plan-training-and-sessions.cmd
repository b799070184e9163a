plan
