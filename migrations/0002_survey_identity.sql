-- A survey's identity: a survey deleted and made again under the same slug is another survey,
-- so an export of the new one starts over instead of resuming where the old one stopped.
alter table canvass.survey add column if not exists survey_id text not null default '';
