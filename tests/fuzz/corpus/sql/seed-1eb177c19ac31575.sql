CREATE TABLE `t1` (
  `id` INT NOT NULL AUTO_INCREMENT,
  `a` VARCHAR(10) NULL,
  `b` VARBINARY(4) NULL,
  `c` DATE NULL,
  `d` INT UNSIGNED NULL,
  `e` YEAR NULL,
  `f` DECIMAL(3,3) NULL,
  PRIMARY KEY (`id`),
  KEY k0 (`e`),
  KEY k1 (`d`)
)
--;
INSERT IGNORE INTO `t1` (a, b, c, d, e, f) VALUES ('a', 'abc', '2024-02-17', 7, NULL, 0.1), ('[1, 2]', '', '2002-09-13', 7, NULL, 0.848), ('a', 'a ', '2002-08-07', NULL, 1901, 0.178), ('x%y', '2', '1996-12-23', NULL, 2024, 0.686), ('a_b', X'', '1993-08-02', 658, 0, NULL), ('abc def', 'É', '1996-02-28', 146, 1970, -0.7), ('abc', '2', '2000-01-01', 483, NULL, 0.77)
--;
SELECT 1.5e-3 AS c0
--;
ALTER TABLE t1 ADD COLUMN zz INT DEFAULT 6
--;
SELECT (CONCAT(FROM_DAYS(-1), a1.f) - SUBSTRING_INDEX('2024-01-15', ' ', 0)) AS c0, CASE GREATEST(ABS(a1.b), a5.id) WHEN a5.f THEN a2.b ELSE CONCAT(a5.c, ~(a1.e)) END AS c1, a2.a AS c2 FROM `t1` AS a1 JOIN `t1` AS a2 ON a2.d = a1.d AND (a1.d NOT IN (SELECT '1988-05-15 14:30:45.6304' AS c0 FROM `t1` AS a3 JOIN `t1` AS a4 USING (c) WHERE ((a3.e < a3.b)))) LEFT JOIN `t1` AS a5 ON a5.b = a1.f WHERE ((CASE STRCMP(NULL, a2.e) WHEN 2147483647 THEN CAST(a1.d AS INTEGER) ELSE REGEXP_INSTR(a2.b, '^a') END = 18446744073709551615))
--;
START TRANSACTION
--;
WITH RECURSIVE r AS (SELECT -2 AS c0, 10 AS c1 UNION ALL SELECT rr.c0 + 1 AS c0, rr.c1 * -1 AS c1 FROM `r` AS rr WHERE (rr.c0 < 6)) SELECT a2.e AS c0, a1.f AS c1, a1.b AS c2 FROM `t1` AS a1 NATURAL LEFT JOIN `t1` AS a2 INNER JOIN `t1` AS a3 ON a3.id = a2.f WHERE ((BINARY('ab') <= a2.a)) AND ((a2.c >= LOCATE(a1.a, 'ss', 1))) ORDER BY 1 DESC, 2 DESC, 3 DESC LIMIT 3
--;
UPDATE `t1` SET b = 'b' WHERE ((id >= DATE_SUB(a, INTERVAL -9223372036854775808 MINUTE))) ORDER BY id LIMIT 3
--;
SELECT CONCAT('2024-13-01', '10', SUBDATE(SUBDATE(('2031-11-18 13:57:59.53530' + INTERVAL '2 3:4:5' DAY_SECOND), (256 - NULL)), MICROSECOND(123456))) AS c0
--;
CREATE TABLE c0 AS SELECT CONCAT_WS('', REGEXP_SUBSTR(REGEXP_REPLACE(a1.b, '[a-c]+', ''), '(ab)+'), REVERSE(a1.b)) AS c0, a1.c AS c1, a1.e AS c2 FROM `t1` AS a1 WHERE ((10 != MINUTE(ADDDATE(TIMESTAMP '1963-03-12 13:51:25.76809', 0))))
--;
SELECT (COUNT(DISTINCT BINARY NULL) + COUNT((-1 - a2.c2))) AS c0 FROM `t1` AS a1 JOIN (SELECT 1e0 AS c0, '0x1F' AS c1, a3.id AS c2 FROM `t1` AS a3 WHERE ('2' <=> NULL)) AS a2 ON (-7 <= a1.id) RIGHT JOIN `t1` AS a4 ON a4.d = a1.id WHERE (((a4.c - INTERVAL a1.d SECOND) IN (a4.c))) AND ((IF(('1.5' = a4.f), 'A', '0x1F') >= CONCAT('abc', b'101', '2022-10-20 04:49:19.59654')))
--;
REPLACE INTO `t1` (a, c, d, e, f) VALUES ('É', DATE '2000-01-01', 758, 0, 0.732), ('10', (SELECT MAX(CAST(a3.a AS DATE)) AS c0 FROM `t1` AS a1 CROSS JOIN `t1` AS a2 INNER JOIN `t1` AS a3 ON a3.f = a1.b WHERE (a1.f IS NULL)), 320, (65535 - MONTH('1000-01-01')), 0.7)
--;
SAVEPOINT sp1
--;
INSERT INTO `t1` (id, a, b, c, e, f) VALUES (1, '1e2', 'a ', NULL, ((0 - 0) << STRCMP('{"a": 1}', 'a_b')), 0.5)
--;
SELECT a1.c3 AS c0 FROM (SELECT NULL AS c0, a3.a AS c1, FROM_UNIXTIME(COUNT(SIGN(a3.f))) AS c2, (MIN(GREATEST(a2.d, a2.e)) - COUNT(*)) AS c3, MAX(NULL) AS c4 FROM `t1` AS a2 JOIN `t1` AS a3 ON a3.e = a2.id WHERE (((a2.a < 'a ') XOR (a3.b != '1985-08-13 20:05:44.6'))) AND ((CONCAT(a3.c, NULL) IN (NULL))) GROUP BY 1, 2 HAVING ((MIN(255) NOT IN (c0)))) AS a1 RIGHT JOIN `t1` AS a4 ON ('2024-01-15' IS NULL OR a4.c < a1.c0 XOR (a4.f <=> '0000-00-00')) LEFT JOIN `t1` AS a5 ON ((SELECT MIN(CONCAT_WS('', 'x%y', 'É')) AS c0 FROM `t1` AS a6 RIGHT JOIN `t1` AS a7 USING (b) WHERE (('2024-01-15' <= DATE '2024-02-29'))) RLIKE 'b$') WHERE ((REGEXP_INSTR(COLLATION(a4.e), '^$') IN (SELECT GREATEST(a9.c, a10.d) AS c0 FROM `t1` AS a8, `t1` AS a9 LEFT JOIN `t1` AS a10 ON a10.d = a9.e WHERE ((a4.id IN (a9.b))) AND ('x%y' > ' 5')))) ORDER BY 1 DESC
--;
SET SESSION sql_mode = ''
--;
INSERT INTO `t1` (a, b, c, d, e, f) SELECT s.a AS c0, CASE WHEN (s.id = s.b) THEN s.a WHEN ('2024-02-29 24:00:00' <= TIMESTAMP '1990-08-02 22:46:15.9882') THEN s.b ELSE 'abc' END AS c1, s.c AS c2, s.d AS c3, CAST('23:59:59' AS SIGNED INTEGER) AS c4, s.f AS c5 FROM `t1` AS s ORDER BY s.id
--;
SELECT a1.c0 AS c0, COALESCE(CAST(ROUND(NULL) AS DATETIME(0)), '1986-02-22 02:17:44.06') AS c1, (CAST(a1.c1 AS DATE) - INTERVAL (a1.c1 * a1.c1) HOUR) AS c2 FROM (SELECT CASE WHEN 256 < 4294967295 THEN a2.c WHEN (a2.a <=> 'ab') THEN NULLIF(20240115, '2000-01-01') END AS c0, NULLIF('{}', IF((a2.a <= a2.b), a2.f, a2.e)) AS c1, LEFT(REPLACE(NULL, '10', '10'), 1) AS c2 FROM `t1` AS a2) AS a1
--;
SELECT table_name, column_name, data_type, column_key FROM information_schema.columns WHERE table_schema = 'fz'