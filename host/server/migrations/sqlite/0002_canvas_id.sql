-- The Canvas user id of a student whose roster was Canvas's gradebook
-- export: a grade file for Canvas names them by it (NULL: by the school id).
ALTER TABLE people ADD COLUMN canvas_id TEXT;
