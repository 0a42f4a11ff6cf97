-- ehrsql_mimic_iv: derived by build.py from glee4810/ehrsql-2024 (data/mimic_iv), MIT-LCP/mimic-website (content/en/docs/IV/modules); see README.md

CREATE TABLE "patients" ( -- Patients' gender, age, and date of death if information exists.
  "row_id" INTEGER NOT NULL,
  "subject_id" INTEGER NOT NULL, -- subject_id is a unique identifier which specifies an individual patient. Any rows associated with a single subject_id pertain to the same individual. As subject_id is the primary key for the table, it is unique for each row.
  "gender" VARCHAR(5) NOT NULL, -- gender is the genotypical sex of the patient.
  "dob" TIMESTAMP NOT NULL,
  "dod" TIMESTAMP, -- The de-identified date of death for the patient. Date of death is extracted from two sources: the hospital information system and the Massachusetts State Registry of Vital Records and Statistics.
  PRIMARY KEY ("row_id"),
  UNIQUE ("subject_id")
);

CREATE TABLE "admissions" ( -- Detailed information about hospital stays.
  "row_id" INTEGER NOT NULL,
  "subject_id" INTEGER NOT NULL, -- Each row of this table contains a unique hadm_id, which represents a single patient's admission to the hospital. hadm_id ranges from 2000000 - 2999999. It is possible for this table to have duplicate subject_id, indicating that a single patient had multiple admissions to the hospital.
  "hadm_id" INTEGER NOT NULL, -- Each row of this table contains a unique hadm_id, which represents a single patient's admission to the hospital. hadm_id ranges from 2000000 - 2999999. It is possible for this table to have duplicate subject_id, indicating that a single patient had multiple admissions to the hospital.
  "admittime" TIMESTAMP NOT NULL, -- admittime provides the date and time the patient was admitted to the hospital, while dischtime provides the date and time the patient was discharged from the hospital. If applicable, deathtime provides the time of in-hospital death for the patient.
  "dischtime" TIMESTAMP, -- admittime provides the date and time the patient was admitted to the hospital, while dischtime provides the date and time the patient was discharged from the hospital. If applicable, deathtime provides the time of in-hospital death for the patient.
  "admission_type" VARCHAR(50) NOT NULL, -- admission_type is useful for classifying the urgency of the admission. There are 9 possibilities: 'AMBULATORY OBSERVATION', 'DIRECT EMER.', 'DIRECT OBSERVATION', 'ELECTIVE', 'EU OBSERVATION', 'EW EMER.', 'OBSERVATION ADMIT', 'SURGICAL SAME DAY ADMISSION', 'URGENT'.
  "admission_location" VARCHAR(50) NOT NULL, -- admission_location provides information about the location of the patient prior to arriving at the hospital. Note that as the emergency room is technically a clinic, patients who are admitted via the emergency room usually have it as their admission location.
  "discharge_location" VARCHAR(50), -- admission_location provides information about the location of the patient prior to arriving at the hospital. Note that as the emergency room is technically a clinic, patients who are admitted via the emergency room usually have it as their admission location.
  "insurance" VARCHAR(255) NOT NULL, -- The insurance, language, marital_status, and ethnicity columns provide information about patient demographics for the given hospitalization. Note that as this data is documented for each hospital admission, they may change from stay to stay.
  "language" VARCHAR(10), -- The insurance, language, marital_status, and ethnicity columns provide information about patient demographics for the given hospitalization. Note that as this data is documented for each hospital admission, they may change from stay to stay.
  "marital_status" VARCHAR(50), -- The insurance, language, marital_status, and ethnicity columns provide information about patient demographics for the given hospitalization. Note that as this data is documented for each hospital admission, they may change from stay to stay.
  "age" INTEGER NOT NULL,
  PRIMARY KEY ("row_id"),
  UNIQUE ("hadm_id"),
  FOREIGN KEY ("subject_id") REFERENCES "patients" ("subject_id")
);

CREATE TABLE "d_icd_diagnoses" ( -- Dimension table for *diagnoses_icd*; provides a description of ICD-9/ICD-10 billed diagnoses.
  "row_id" INTEGER NOT NULL,
  "icd_code" VARCHAR(10) NOT NULL, -- icd_code is the International Coding Definitions (ICD) code.
  "long_title" VARCHAR(255) NOT NULL, -- The long_title provides the meaning of the ICD code. For example, the ICD-9 code 0010 has long_title "Cholera due to vibrio cholerae".
  PRIMARY KEY ("row_id"),
  UNIQUE ("icd_code")
);

CREATE TABLE "d_icd_procedures" ( -- Dimension table for *procedures_icd*; provides a description of ICD-9/ICD-10 billed procedures.
  "row_id" INTEGER NOT NULL,
  "icd_code" VARCHAR(10) NOT NULL, -- icd_code is the International Coding Definitions (ICD) code.
  "long_title" VARCHAR(255) NOT NULL, -- The title fields provide a brief definition for the given procedure code in .
  PRIMARY KEY ("row_id"),
  UNIQUE ("icd_code")
);

CREATE TABLE "d_labitems" ( -- Dimension table for *labevents* provides a description of all lab items.
  "row_id" INTEGER NOT NULL,
  "itemid" INTEGER NOT NULL, -- A unique identifier for a laboratory concept. itemid is unique to each row, and can be used to identify data in labevents associated with a specific concept.
  "label" VARCHAR(200), -- The label column describes the concept which is represented by the itemid.
  PRIMARY KEY ("row_id"),
  UNIQUE ("itemid")
);

CREATE TABLE "d_items" ( -- Dimension table describing itemid. Defines concepts recorded in the events table in the ICU module.
  "row_id" INTEGER NOT NULL,
  "itemid" INTEGER NOT NULL, -- As an alternate primary key to the table, itemid is unique to each row.
  "label" VARCHAR(200) NOT NULL, -- The label column describes the concept which is represented by the itemid. The abbreviation column, only available in Metavision, lists a common abbreviation for the label.
  "abbreviation" VARCHAR(200) NOT NULL, -- The label column describes the concept which is represented by the itemid. The abbreviation column, only available in Metavision, lists a common abbreviation for the label.
  "linksto" VARCHAR(50) NOT NULL, -- linksto provides the table name which the data links to. For example, a value of 'chartevents' indicates that the itemid of the given row is contained in CHARTEVENTS.
  PRIMARY KEY ("row_id"),
  UNIQUE ("itemid")
);

CREATE TABLE "diagnoses_icd" ( -- Billed ICD-9/ICD-10 diagnoses for hospitalizations.
  "row_id" INTEGER NOT NULL,
  "subject_id" INTEGER NOT NULL, -- {{% include "/static/include/subject_id.md" %}}
  "hadm_id" INTEGER NOT NULL, -- {{% include "/static/include/hadm_id.md" %}}
  "icd_code" VARCHAR(10) NOT NULL, -- icd_code is the International Coding Definitions (ICD) code.
  "charttime" TIMESTAMP NOT NULL,
  PRIMARY KEY ("row_id"),
  FOREIGN KEY ("hadm_id") REFERENCES "admissions" ("hadm_id"),
  FOREIGN KEY ("icd_code") REFERENCES "d_icd_diagnoses" ("icd_code")
);

CREATE TABLE "procedures_icd" ( -- Billed procedures for patients during their hospital stay.
  "row_id" INTEGER NOT NULL,
  "subject_id" INTEGER NOT NULL, -- {{% include "/static/include/subject_id.md" %}}
  "hadm_id" INTEGER NOT NULL, -- {{% include "/static/include/hadm_id.md" %}}
  "icd_code" VARCHAR(10) NOT NULL, -- icd_code is the International Coding Definitions (ICD) code.
  "charttime" TIMESTAMP NOT NULL,
  PRIMARY KEY ("row_id"),
  FOREIGN KEY ("hadm_id") REFERENCES "admissions" ("hadm_id"),
  FOREIGN KEY ("icd_code") REFERENCES "d_icd_procedures" ("icd_code")
);

CREATE TABLE "labevents" ( -- Laboratory measurements sourced from patient derived specimens.
  "row_id" INTEGER NOT NULL,
  "subject_id" INTEGER NOT NULL, -- {{% include "/static/include/subject_id.md" %}}
  "hadm_id" INTEGER NOT NULL, -- {{% include "/static/include/hadm_id.md" %}}
  "itemid" INTEGER NOT NULL, -- An identifier which uniquely denotes laboratory concepts.
  "charttime" TIMESTAMP, -- The time at which the laboratory measurement was charted. This is usually the time at which the specimen was acquired, and is usually significantly earlier than the time at which the measurement is available.
  "valuenum" DOUBLE PRECISION, -- The result of the laboratory measurement and, if it is numeric, the value cast as a numeric data type.
  "valueuom" VARCHAR(20), -- The unit of measurement for the laboratory concept.
  PRIMARY KEY ("row_id"),
  FOREIGN KEY ("hadm_id") REFERENCES "admissions" ("hadm_id"),
  FOREIGN KEY ("itemid") REFERENCES "d_labitems" ("itemid")
);

CREATE TABLE "prescriptions" ( -- Prescribed medications.
  "row_id" INTEGER NOT NULL,
  "subject_id" INTEGER NOT NULL, -- {{% include "/static/include/subject_id.md" %}}
  "hadm_id" INTEGER NOT NULL, -- {{% include "/static/include/hadm_id.md" %}}
  "starttime" TIMESTAMP NOT NULL, -- The prescribed start and stop time for the medication.
  "stoptime" TIMESTAMP, -- The prescribed start and stop time for the medication.
  "drug" VARCHAR(255) NOT NULL, -- A free-text description of the medication administered.
  "dose_val_rx" VARCHAR(100) NOT NULL, -- The prescribed dose for the patient intended to be administered over the given time period.
  "dose_unit_rx" VARCHAR(50) NOT NULL, -- The unit of measurement for the dose.
  "route" VARCHAR(50) NOT NULL, -- The route of administration for the medication.
  PRIMARY KEY ("row_id"),
  FOREIGN KEY ("hadm_id") REFERENCES "admissions" ("hadm_id")
);

CREATE TABLE "cost" (
  "row_id" INTEGER NOT NULL,
  "subject_id" INTEGER NOT NULL,
  "hadm_id" INTEGER NOT NULL,
  "event_type" VARCHAR(20) NOT NULL,
  "event_id" INTEGER NOT NULL,
  "chargetime" TIMESTAMP NOT NULL,
  "cost" DOUBLE PRECISION NOT NULL,
  PRIMARY KEY ("row_id"),
  FOREIGN KEY ("hadm_id") REFERENCES "admissions" ("hadm_id"),
  FOREIGN KEY ("event_id") REFERENCES "diagnoses_icd" ("row_id"),
  FOREIGN KEY ("event_id") REFERENCES "procedures_icd" ("row_id"),
  FOREIGN KEY ("event_id") REFERENCES "labevents" ("row_id"),
  FOREIGN KEY ("event_id") REFERENCES "prescriptions" ("row_id")
);

CREATE TABLE "chartevents" ( -- Charted items occurring during the ICU stay. Contains the majority of information documented in the ICU. --- # The chartevents table Table source: MetaVision ICU database. Table purpose: Contains all charted data for all patients. Number of rows: 313,645,063 Links to: * patients on subject_id
  "row_id" INTEGER NOT NULL,
  "subject_id" INTEGER NOT NULL, -- Identifiers which specify the patient: subject_id is unique to a patient, hadm_id is unique to a patient hospital stay and stay_id is unique to a patient ward stay. More information about these identifiers is available here.
  "hadm_id" INTEGER NOT NULL, -- Identifiers which specify the patient: subject_id is unique to a patient, hadm_id is unique to a patient hospital stay and stay_id is unique to a patient ward stay. More information about these identifiers is available here.
  "stay_id" INTEGER NOT NULL, -- Identifiers which specify the patient: subject_id is unique to a patient, hadm_id is unique to a patient hospital stay and stay_id is unique to a patient ward stay. More information about these identifiers is available here.
  "itemid" INTEGER NOT NULL, -- Identifier for a single measurement type in the database. Each row associated with one itemid (e.g. 220045) corresponds to an instantiation of the same measurement (e.g. heart rate).
  "charttime" TIMESTAMP NOT NULL, -- charttime records the time at which an observation was made, and is usually the closest proxy to the time the data was actually measured. storetime records the time at which an observation was manually input or manually validated by a member of the clinical staff.
  "valuenum" DOUBLE PRECISION, -- value contains the value measured for the concept identified by the itemid. If this value is numeric, then valuenum contains the same data in a numeric format. If this data is not numeric, valuenum is null. In some cases (e.g.
  "valueuom" VARCHAR(50), -- valueuom is the unit of measurement for the value, if appropriate.
  PRIMARY KEY ("row_id"),
  FOREIGN KEY ("hadm_id") REFERENCES "admissions" ("hadm_id"),
  FOREIGN KEY ("stay_id") REFERENCES "icustays" ("stay_id"),
  FOREIGN KEY ("itemid") REFERENCES "d_items" ("itemid")
);

CREATE TABLE "inputevents" ( -- Information documented regarding continuous infusions or intermittent administrations.
  "row_id" INTEGER NOT NULL,
  "subject_id" INTEGER NOT NULL, -- Identifiers which specify the patient: subject_id is unique to a patient, hadm_id is unique to a patient hospital stay and stay_id is unique to a patient ICU stay.
  "hadm_id" INTEGER NOT NULL, -- Identifiers which specify the patient: subject_id is unique to a patient, hadm_id is unique to a patient hospital stay and stay_id is unique to a patient ICU stay.
  "stay_id" INTEGER NOT NULL, -- Identifiers which specify the patient: subject_id is unique to a patient, hadm_id is unique to a patient hospital stay and stay_id is unique to a patient ICU stay.
  "starttime" TIMESTAMP NOT NULL, -- starttime and endtime record the start and end time of an input/output event.
  "itemid" INTEGER NOT NULL, -- Identifier for a single measurement type in the database. Each row associated with one itemid which corresponds to an instantiation of the same measurement (e.g. norepinephrine).
  "totalamount" DOUBLE PRECISION, -- Intravenous administrations are usually given by hanging a bag of fluid at the bedside for continuous infusion over a certain period of time. These columns list the total amount of the fluid in the bag containing the solution.
  "totalamountuom" VARCHAR(50), -- Intravenous administrations are usually given by hanging a bag of fluid at the bedside for continuous infusion over a certain period of time. These columns list the total amount of the fluid in the bag containing the solution.
  PRIMARY KEY ("row_id"),
  FOREIGN KEY ("hadm_id") REFERENCES "admissions" ("hadm_id"),
  FOREIGN KEY ("stay_id") REFERENCES "icustays" ("stay_id"),
  FOREIGN KEY ("itemid") REFERENCES "d_items" ("itemid")
);

CREATE TABLE "outputevents" ( -- Information regarding patient outputs including urine, drainage, and so on.
  "row_id" INTEGER NOT NULL,
  "subject_id" INTEGER NOT NULL, -- Identifiers which specify the patient: subject_id is unique to a patient, hadm_id is unique to a patient hospital stay and stay_id is unique to a patient ICU stay.
  "hadm_id" INTEGER NOT NULL, -- Identifiers which specify the patient: subject_id is unique to a patient, hadm_id is unique to a patient hospital stay and stay_id is unique to a patient ICU stay.
  "stay_id" INTEGER NOT NULL, -- Identifiers which specify the patient: subject_id is unique to a patient, hadm_id is unique to a patient hospital stay and stay_id is unique to a patient ICU stay.
  "charttime" TIMESTAMP NOT NULL, -- charttime is the time of an output event.
  "itemid" INTEGER NOT NULL, -- Identifier for a single measurement type in the database. Each row associated with one itemid (e.g. 212) corresponds to an instantiation of the same measurement (e.g. heart rate).
  "value" DOUBLE PRECISION, -- value and valueuom list the amount of a substance at the charttime (when the exact start time is unknown, but usually up to an hour before).
  "valueuom" VARCHAR(50), -- value and valueuom list the amount of a substance at the charttime (when the exact start time is unknown, but usually up to an hour before).
  PRIMARY KEY ("row_id"),
  FOREIGN KEY ("hadm_id") REFERENCES "admissions" ("hadm_id"),
  FOREIGN KEY ("stay_id") REFERENCES "icustays" ("stay_id"),
  FOREIGN KEY ("itemid") REFERENCES "d_items" ("itemid")
);

CREATE TABLE "microbiologyevents" ( -- Microbiology cultures.
  "row_id" INTEGER NOT NULL,
  "subject_id" INTEGER NOT NULL, -- {{% include "/static/include/subject_id.md" %}}
  "hadm_id" INTEGER NOT NULL, -- {{% include "/static/include/hadm_id.md" %}}
  "charttime" TIMESTAMP NOT NULL, -- charttime records the time at which an observation was charted, and is usually the closest proxy to the time the data was actually measured. chartdate is the same as charttime, except there is no time available.
  "spec_type_desc" VARCHAR(100), -- The specimen which is tested for bacterial growth. The specimen is a sample derived from a patient; e.g. blood, urine, sputum, etc.
  "test_name" VARCHAR(100), -- The test performed on the given specimen.
  "org_name" VARCHAR(100), -- The organism, if any, which grew when tested. If NULL, no organism grew (i.e. a negative culture).
  PRIMARY KEY ("row_id"),
  FOREIGN KEY ("hadm_id") REFERENCES "admissions" ("hadm_id")
);

CREATE TABLE "icustays" ( -- Tracking information for ICU stays including admission and discharge times.
  "row_id" INTEGER NOT NULL,
  "subject_id" INTEGER NOT NULL, -- Identifiers which specify the patient: subject_id is unique to a patient, hadm_id is unique to a patient hospital stay and stay_id is unique to a patient ward stay.
  "hadm_id" INTEGER NOT NULL, -- Identifiers which specify the patient: subject_id is unique to a patient, hadm_id is unique to a patient hospital stay and stay_id is unique to a patient ward stay.
  "stay_id" INTEGER NOT NULL, -- Identifiers which specify the patient: subject_id is unique to a patient, hadm_id is unique to a patient hospital stay and stay_id is unique to a patient ward stay.
  "first_careunit" VARCHAR(20) NOT NULL, -- FIRST_CAREUNIT and LAST_CAREUNIT contain, respectively, the first and last ICU type in which the patient was cared for. As an stay_id groups all ICU admissions within 24 hours of each other, it is possible for a patient to be transferred from one type of ICU to another and have the same stay_id.
  "last_careunit" VARCHAR(20) NOT NULL, -- FIRST_CAREUNIT and LAST_CAREUNIT contain, respectively, the first and last ICU type in which the patient was cared for. As an stay_id groups all ICU admissions within 24 hours of each other, it is possible for a patient to be transferred from one type of ICU to another and have the same stay_id.
  "intime" TIMESTAMP NOT NULL, -- INTIME provides the date and time the patient was transferred into the ICU. OUTTIME provides the date and time the patient was transferred out of the ICU.
  "outtime" TIMESTAMP, -- INTIME provides the date and time the patient was transferred into the ICU. OUTTIME provides the date and time the patient was transferred out of the ICU.
  PRIMARY KEY ("row_id"),
  UNIQUE ("stay_id"),
  FOREIGN KEY ("hadm_id") REFERENCES "admissions" ("hadm_id")
);

CREATE TABLE "transfers" ( -- Detailed information about patients' unit transfers.
  "row_id" INTEGER NOT NULL,
  "subject_id" INTEGER NOT NULL, -- Identifiers which specify the patient: subject_id is unique to a patient, hadm_id is unique to a patient hospital stay, and transfer_id is unique to a patient physical location.
  "hadm_id" INTEGER NOT NULL, -- Identifiers which specify the patient: subject_id is unique to a patient, hadm_id is unique to a patient hospital stay, and transfer_id is unique to a patient physical location.
  "transfer_id" INTEGER NOT NULL, -- Identifiers which specify the patient: subject_id is unique to a patient, hadm_id is unique to a patient hospital stay, and transfer_id is unique to a patient physical location.
  "eventtype" VARCHAR(20) NOT NULL, -- eventtype describes what transfer event occurred: 'ed' for an emergency department stay, 'admit' for an admission to the hospital, 'transfer' for an intra-hospital transfer and 'discharge' for a discharge from the hospital.
  "careunit" VARCHAR(20), -- The type of unit or ward in which the patient is physically located. Examples of care units include medical ICUs, surgical ICUs, medical wards, new baby nurseries, and so on.
  "intime" TIMESTAMP NOT NULL, -- intime provides the date and time the patient was transferred into the current care unit (careunit) from the previous care unit. outtime provides the date and time the patient was transferred out of the current physical location.
  "outtime" TIMESTAMP, -- intime provides the date and time the patient was transferred into the current care unit (careunit) from the previous care unit. outtime provides the date and time the patient was transferred out of the current physical location.
  PRIMARY KEY ("row_id"),
  FOREIGN KEY ("hadm_id") REFERENCES "admissions" ("hadm_id")
);

