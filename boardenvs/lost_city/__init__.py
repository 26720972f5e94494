"""Star of the Lost City (``lost_city_v0``): board and deck tables, pure rules, and the env encoding."""
