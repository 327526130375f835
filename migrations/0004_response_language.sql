-- The language a response was given in, for a survey offered in several languages (NULL:
-- its survey's only language, or a response given before languages were offered).
alter table canvass.response add column if not exists language text;
