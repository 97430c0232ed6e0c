-- migration: expand
-- An account's row is updated by every settle statement and every direct charge, and by each
-- lease taken and returned; none of those updates changes an indexed column. With its pages full
-- (the default fillfactor, 100) each new row version goes to another page and takes a new entry
-- in every index of the table; with room left in the page, PostgreSQL writes it there as a
-- heap-only tuple (HOT): no index entry, less WAL, and space a later update reuses once
-- the old version is pruned. The table holds one row per account, so leaving half of each page
-- free costs little. Pages written before this keep their fill until rewritten.
ALTER TABLE accounts SET (fillfactor = 50);
