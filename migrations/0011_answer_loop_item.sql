-- Loops: a question a loop repeats has one answer row per item it was answered for, its
-- `question` the question's own id and `item` the item's key (an option's key, or the time
-- round from 1); every other answer has the empty item. The key takes the item in.
alter table canvass.answer add column if not exists item text not null default '';
alter table canvass.answer drop constraint if exists answer_pkey;
alter table canvass.answer add primary key (tenant, survey, reference, question, item);
