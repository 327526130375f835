-- Question types of the second wave: a date answer has a column of its own (an `nps` or
-- `scale` answer is a number, a `dropdown` answer a choice); scales and date bounds are
-- described on their question. Tables made by earlier versions keep working: every new
-- column may be NULL.
alter table canvass.answer add column if not exists date date;
alter table canvass.question add column if not exists points integer;
alter table canvass.question add column if not exists min_label text;
alter table canvass.question add column if not exists max_label text;
alter table canvass.question add column if not exists earliest date;
alter table canvass.question add column if not exists latest date;
