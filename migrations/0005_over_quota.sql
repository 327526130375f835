-- The quotas a response was kept over, by id, for a survey whose quotas keep answers once
-- full (NULL: it is over none).
alter table canvass.response add column if not exists over_quota text[];
