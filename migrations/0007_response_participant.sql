-- The participant who gave a response through their personal link, for a survey whose
-- answers are not anonymous: {"id", "email", "first_name", "last_name", "attributes": {...}}
-- (NULL: anyone else's, or an anonymous survey's).
alter table canvass.response add column if not exists participant jsonb;
