-- expect: dangerous
SELECT a INTO TEMP newtab FROM t