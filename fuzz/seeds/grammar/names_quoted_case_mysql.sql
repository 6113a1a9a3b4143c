-- expect: names mysql
SELECT first_name AS `Email` FROM customer WHERE `EMAIL` > ''