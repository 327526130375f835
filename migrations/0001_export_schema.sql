-- The schema survey exports are written into. Every row carries its tenant (and survey), so
-- one tenant's export never touches another's rows.
create schema if not exists canvass;

create table if not exists canvass.survey (
    tenant text not null,
    survey text not null,
    title text not null,
    description text,
    version integer not null,
    published boolean not null,
    exported_through bigint not null default 0,
    exported_at timestamptz,
    primary key (tenant, survey)
);

create table if not exists canvass.survey_version (
    tenant text not null,
    survey text not null,
    version integer not null,
    title text not null,
    primary key (tenant, survey, version)
);

create table if not exists canvass.question (
    tenant text not null,
    survey text not null,
    question text not null,
    position integer not null,
    text text not null,
    type text not null,
    required boolean not null,
    min double precision,
    max double precision,
    integer_only boolean not null default false,
    primary key (tenant, survey, question)
);

create table if not exists canvass.option (
    tenant text not null,
    survey text not null,
    question text not null,
    position integer not null,
    text text not null,
    primary key (tenant, survey, question, position)
);

create table if not exists canvass.response (
    tenant text not null,
    survey text not null,
    reference bigint not null,
    submitted_at timestamptz not null,
    version integer not null,
    position bigint not null,
    primary key (tenant, survey, reference)
);

create table if not exists canvass.answer (
    tenant text not null,
    survey text not null,
    reference bigint not null,
    question text not null,
    text text,
    choice text,
    choices text[],
    number double precision,
    primary key (tenant, survey, reference, question)
);
