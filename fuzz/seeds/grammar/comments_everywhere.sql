-- expect: benign
SELECT /* a /* b */ c */ a -- ; DROP TABLE t
 FROM /*; DELETE FROM t;*/ t WHERE a = '; COMMIT' ORDER BY a