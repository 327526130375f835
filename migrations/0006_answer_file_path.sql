-- A file answer's download path for members (`/tenant/surveys/{survey}/responses/ref/{reference}/files/{question}`);
-- its name is in `text`, its kind in `choice`, its size in bytes in `number`. NULL for other answers.
alter table canvass.answer add column if not exists file_path text;
